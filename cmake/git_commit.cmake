# Writes OUT (a header) with CUZK_GIT_COMMIT: the commit the tree was built
# from (12 hex digits, "-dirty" when it has uncommitted changes), or
# "unknown" outside a git checkout. Run at every build (cmake -P); the
# header changes only when the commit does, so nothing rebuilds otherwise.
# Usage: cmake -DSRC=<source dir> -DOUT=<header> -P git_commit.cmake
set(commit "unknown")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND head)
    set(commit ${head})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} diff --quiet HEAD -- RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "/* written by cmake/git_commit.cmake at build time */\n#define CUZK_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
