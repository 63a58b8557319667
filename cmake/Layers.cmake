# Include roots per layer. Sources include "common/x.h", "master/x.h", ...;
# if src/ itself were on the include path, any target could include any
# layer's headers whatever it links. Instead each layer gets a root of its
# own in the build tree holding a single link, <root>/<layer> -> src/<layer>,
# and a target sees only the roots of the layers it links:
#
#   common <- collectives <- master (bdmprun)
#   common <- slave (libbdmpi)
#   common <- tools (bdmpiexec)
#
# so an include that goes against the layering fails to compile.

# Sets `out_var` to the include root of src/<layer>.
function(bdmpi_layer_include_root layer out_var)
  set(root ${PROJECT_BINARY_DIR}/include-roots/${layer})
  if(NOT EXISTS ${root}/${layer})
    file(MAKE_DIRECTORY ${root})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${root}/${layer} SYMBOLIC)
  endif()
  set(${out_var} ${root} PARENT_SCOPE)
endfunction()
