# `cpack -G DEB` in the build folder: one package, cudaperf, installed under
# /usr, whose dependencies are the Debian bookworm packages the built parts
# link against. The CUDA toolkit is not a Debian package: the judge, worker
# and nvcc come from /usr/local/cuda (kept in the installed programs' RPATH).
set(CPACK_PACKAGE_NAME cudaperf)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "cudaperf developers <cudaperf@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "reward infrastructure for reinforcement learning of CUDA kernels")
set(CPACK_PACKAGE_DESCRIPTION
    "A Clang 19 plugin and tool that extract performance features of CUDA kernels, the reward daemon\n"
    "cudaperfd (compiles, checks and times candidates in sandboxed single-use workers) and its client,\n"
    "and cudaperf-train (the structural ranker, SFT and GRPO on a causal LM). The judge needs the\n"
    "CUDA 13 toolkit at /usr/local/cuda and an NVIDIA GPU.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)

# Each part names the Debian packages of what it links, where it links them
# (the global property CUDAPERF_DEB_DEPENDS).
set(cudaperf_depends libc6 libstdc++6 libgcc-s1)
if(TARGET Boost::json)
  list(APPEND cudaperf_depends libboost-json1.81.0 libboost-container1.81.0)
endif()
get_property(cudaperf_part_depends GLOBAL PROPERTY CUDAPERF_DEB_DEPENDS)
list(APPEND cudaperf_depends ${cudaperf_part_depends})
list(REMOVE_DUPLICATES cudaperf_depends)
list(JOIN cudaperf_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# clang-19 to run the plugin; Python with torch for `cudaperf import-kernelbench`.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-19, python3, python3-torch")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nginx-light")
include(CPack)
