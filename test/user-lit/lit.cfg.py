# A user's own lit suite for cudaperf's feature extraction (docs/features.md,
# "Your own regression tests"): copy this file and the .cu tests beside it.
#   lit -v --param cudaperf_prefix=/usr path/to/this/folder
import os
import lit.formats

prefix = lit_config.params.get('cudaperf_prefix', '/usr')
config.name = 'my-cudaperf-features'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.cu']
config.test_source_root = os.path.dirname(__file__)
# Where lit writes its scratch files (Output/): beside the tests unless told.
config.test_exec_root = lit_config.params.get('exec_root', config.test_source_root)

# The minimal CUDA header cudaperf installs: no CUDA toolkit needed. With the
# toolkit, use '--cuda-gpu-arch=sm_90' instead and include <cuda_runtime.h>.
cuda = '-nocudainc -nocudalib --cuda-host-only -isystem %s/share/cudaperf/include' % prefix
plugin = 'clang++-19 -fsyntax-only -Wno-unknown-cuda-version %s -fplugin=%s/cudaperf/cudaperf.so' % (
    cuda, lit_config.params.get('cudaperf_libdir', prefix + '/lib'))
config.substitutions.append(('%plugin-json', plugin + ' -fplugin-arg-cudaperf-format=json'))
config.substitutions.append(('%plugin-warn', plugin + ' -fplugin-arg-cudaperf-warn'))
config.substitutions.append(('%features-text', '%s/bin/cudaperf-features --format=text %s' % (
    prefix, ' '.join('--extra-arg=' + f for f in cuda.split()))))
# FileCheck from llvm-19-tools.
config.environment['PATH'] = os.pathsep.join(['/usr/lib/llvm-19/bin', os.environ.get('PATH', '')])
