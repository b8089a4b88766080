# Warnings for Portolan's own targets only (third-party headers are included as SYSTEM).
function(portolan_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>)
endfunction()
