# What the installed programs read besides themselves, under
# <prefix>/share/cudaperf (found from <prefix>/bin, see
# daemon/include/cudaperf/daemon/InstalledPaths.h), and the user docs.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tasks/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cudaperf/tasks COMPONENT data
        PATTERN "__pycache__" EXCLUDE)
# `cudaperf import-kernelbench` runs this with the Python that has torch.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/kernelbench/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cudaperf/scripts/kernelbench
        COMPONENT data USE_SOURCE_PERMISSIONS PATTERN "__pycache__" EXCLUDE)
# The minimal CUDA header of the lit suite: users' own FileCheck tests of the
# features need no CUDA toolkit with it (docs/features.md, "Your own tests").
install(FILES ${PROJECT_SOURCE_DIR}/test/lit/Inputs/cuda.h DESTINATION ${CMAKE_INSTALL_DATADIR}/cudaperf/include
        COMPONENT data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT data)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT data)
