# SPDX-License-Identifier: GPL-2.0-or-later
# Run at every build (cmake -P): writes OUTPUT with the source tree's `git describe`, only
# when it changed, so that a binary reports the commit it was built from, not the one the
# build tree was configured at.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT revision)
    set(revision "unknown")
endif()
set(content "// SPDX-License-Identifier: GPL-2.0-or-later\n// Generated at build time by engine/git_revision.cmake.\n#pragma once\n\n#define RINGLAB_GIT_REVISION \"${revision}\"\n")
set(old "")
if(EXISTS ${OUTPUT})
    file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL content)
    file(WRITE ${OUTPUT} "${content}")
endif()
