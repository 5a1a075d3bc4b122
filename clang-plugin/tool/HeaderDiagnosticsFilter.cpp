#include "HeaderDiagnosticsFilter.h"

#include <clang/Sema/Sema.h>

namespace cudaperf::analysis {

namespace {
// A multiplexing source starts with two; these answer nothing.
class EmptySemaSource : public clang::ExternalSemaSource {};
} // namespace

HeaderDiagnosticsFilter::HeaderDiagnosticsFilter()
    : MultiplexExternalSemaSource(new EmptySemaSource, new EmptySemaSource) {}

void installHeaderDiagnosticsFilter(clang::Sema &sema) {
  llvm::IntrusiveRefCntPtr<HeaderDiagnosticsFilter> filter(new HeaderDiagnosticsFilter);
  if (sema.ExternalSource)
    filter->AddSource(sema.ExternalSource.get());
  // Later sources (the reader, from Sema::Initialize) are added to the filter:
  // Sema appends to an external source that is already a multiplexer.
  sema.ExternalSource = filter;
}

} // namespace cudaperf::analysis
