# ctest's install.ConsumerBuildsAgainstTheInstalledPackage: installs BUILD_DIR into WORK_DIR/prefix,
# builds tests/install/consumer against it with find_package(cascadekit), and runs it. CXX_FLAGS:
# the sanitizer flags of a sanitizer build, whose static libraries need them at link time.
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${WORK_DIR}/prefix"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR}/tests/install/consumer;-B;${WORK_DIR}/build;-G;${GENERATOR};-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
    "${WORK_DIR}/build/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${step}\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "consumer: ${out}")
# The runtime must not drag OpenCV into an application.
file(READ ${WORK_DIR}/prefix/lib/cmake/cascadekit/cascadekitTargets.cmake targets)
if(targets MATCHES "opencv")
  message(FATAL_ERROR "the installed targets name OpenCV")
endif()
