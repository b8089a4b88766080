# Warnings for Portolan's own targets only (third-party headers are included as SYSTEM).
# PORTOLAN_WERROR (CI turns it on) makes them errors, for Portolan's own code only.
option(PORTOLAN_WERROR "Treat warnings in Portolan's own code as errors" OFF)
function(portolan_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-missing-field-initializers>
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${PORTOLAN_WERROR}>>:-Werror>)
endfunction()
