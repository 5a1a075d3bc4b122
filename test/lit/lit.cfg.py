# lit configuration of the cudaperf FileCheck suite. CMake writes
# lit.site.cfg.py (paths of the built plugin/tool, the mode) into the build
# tree; ctest passes it as --param cudaperf_site=FILE.
import os
import lit.formats

site = lit_config.params.get('cudaperf_site')
if site and not getattr(config, 'cudaperf_site_loaded', False):
    config.cudaperf_site_loaded = True
    lit_config.load_config(config, site)

config.name = 'cudaperf'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.cu']
config.excludes = ['Inputs']
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = getattr(config, 'cudaperf_exec_root', config.test_source_root)

clang = config.cudaperf_clang
inputs = os.path.join(config.test_source_root, 'Inputs')
mock = '-nocudainc -nocudalib --cuda-host-only -isystem %s' % inputs
sdk = '--cuda-gpu-arch=sm_90 -Wno-unknown-cuda-version'

# Every test runs through one front end: the plugin inside clang++-19, or the
# libTooling binary (built with AddressSanitizer in the asan configuration).
if config.cudaperf_mode == 'plugin':
    run = '%s -fsyntax-only -fplugin=%s' % (clang, config.cudaperf_plugin)
    def front(options, flags):
        args = ' '.join('-fplugin-arg-cudaperf-%s' % o for o in options)
        return '%s %s %s' % (run, flags, args)
    config.available_features.add('plugin')
else:
    def front(options, flags):
        args = ' '.join('--%s' % o for o in options)
        extra = ' '.join('--extra-arg=%s' % f for f in flags.split())
        return '%s %s %s' % (config.cudaperf_tool, args, extra)
    config.available_features.add('tool')
    if config.cudaperf_mode == 'asan':
        config.available_features.add('asan')

# One more analysis option, spelled for the front end in use: %cudaperf-arg-entry=relu.
config.substitutions.append(('%cudaperf-arg-', '-fplugin-arg-cudaperf-' if config.cudaperf_mode == 'plugin' else '--'))
config.substitutions.append(('%cudaperf-json', front(['format=json'], mock)))
# Without the system include paths (builtin headers stay): a header that is absent on some machines
# (torch/extension.h, present once libtorch-dev is) is absent on all.
config.substitutions.append(('%cudaperf-text-nostdlibinc', front(['format=text'], mock + ' -nostdlibinc')))
config.substitutions.append(('%cudaperf-text', front(['format=text'], mock)))
config.substitutions.append(('%cudaperf-verify',
                             front(['warn', 'format=text', 'output=/dev/null'], mock + ' -Xclang -verify')))
config.substitutions.append(('%cudaperf-sdm80-text', front(['format=text', 'arch=sm_80'], mock)))
config.substitutions.append(('%cudaperf-sdk-json', front(['format=json'], sdk)))
config.substitutions.append(('%cudaperf-sdk-text', front(['format=text'], sdk)))
config.substitutions.append(('%clang-mock', '%s -fsyntax-only %s' % (clang, mock)))
config.substitutions.append(('%plugin', config.cudaperf_plugin))
config.substitutions.append(('%clang', clang))
config.substitutions.append(('%tool', config.cudaperf_tool))
config.substitutions.append(('%inputs', inputs))
config.substitutions.append(('%python', config.cudaperf_python))

config.environment['PATH'] = os.pathsep.join([config.cudaperf_llvm_bin, config.environment.get('PATH', '')])
if config.cudaperf_cuda_sdk:
    config.available_features.add('cuda-sdk')
