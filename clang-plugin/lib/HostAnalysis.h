// Host-side facts: kernel launches with their configuration, host<->device
// transfers and device synchronisations, each with its loop depth and order.
#pragma once

#include "Facts.h"

#include <clang/AST/ASTContext.h>

namespace cudaperf::analysis {

void collectHostFacts(clang::ASTContext &ast, const clang::FunctionDecl *hostFunction, TranslationUnitFacts &facts);

} // namespace cudaperf::analysis
