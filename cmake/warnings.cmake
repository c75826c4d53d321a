# Warnings are errors for the project's own targets. Third-party headers come in
# as SYSTEM includes, so they do not trip these flags.
function(lsfsched_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Werror
    -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Wunused -Woverloaded-virtual
    -Wimplicit-fallthrough -Wformat=2)
endfunction()
