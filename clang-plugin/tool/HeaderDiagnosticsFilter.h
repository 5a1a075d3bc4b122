// With the CUDA headers precompiled, Sema re-reads thousands of their
// function declarations at the end of every translation unit only to
// diagnose them: deferred CUDA diagnostics (host/device call checks) and
// unused file-scope statics. The headers compiled cleanly when the
// precompiled header was built, and an analysis wants neither; reading them
// was two thirds of a warm analysis. This source sits between Sema and the
// precompiled header's reader and answers those two reads with nothing;
// every other read goes to the reader. The candidate's own declarations are
// still diagnosed: they are Sema's, not the reader's.
#pragma once

#include <clang/Sema/MultiplexExternalSemaSource.h>

namespace clang {
class Sema;
}

namespace cudaperf::analysis {

class HeaderDiagnosticsFilter : public clang::MultiplexExternalSemaSource {
public:
  HeaderDiagnosticsFilter();
  void ReadUnusedFileScopedDecls(llvm::SmallVectorImpl<const clang::DeclaratorDecl *> &) override {}
  void ReadDeclsToCheckForDeferredDiags(llvm::SmallSetVector<clang::Decl *, 4> &) override {}
};

// Puts the filter in front of Sema's external source (now or, when the
// precompiled header's reader attaches itself later, then).
void installHeaderDiagnosticsFilter(clang::Sema &sema);

} // namespace cudaperf::analysis
