# attnviz_warnings(target): the warning set every first-party target uses.
function(attnviz_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wno-unused-parameter)
endfunction()
