# Dependencies of the Windows build (cmake/mingw-w64.cmake, docs/windows.md), as the same
# target names the Linux build gets from find_package.

# zlib: libz-mingw-w64-dev's static libz.a.
find_package(ZLIB REQUIRED)

# Header-only Debian packages compile for Windows, but their headers sit in /usr/include
# beside Linux's own system headers, which must never be on a Windows include path: each
# one is linked by name into a folder of the build.
set(MAB_HEADER_ONLY_DIR ${CMAKE_BINARY_DIR}/header_only)
file(MAKE_DIRECTORY ${MAB_HEADER_ONLY_DIR})
foreach(name boost CLI nlohmann fmt tiny_gltf.h)
  if(NOT EXISTS /usr/include/${name})
    message(FATAL_ERROR "/usr/include/${name} missing: run scripts/setup")
  endif()
  if(NOT EXISTS ${MAB_HEADER_ONLY_DIR}/${name})
    file(CREATE_LINK /usr/include/${name} ${MAB_HEADER_ONLY_DIR}/${name} SYMBOLIC)
  endif()
endforeach()
add_library(mab_header_only INTERFACE)
target_include_directories(mab_header_only SYSTEM INTERFACE ${MAB_HEADER_ONLY_DIR})
add_library(Boost::headers ALIAS mab_header_only)
add_library(nlohmann_json::nlohmann_json ALIAS mab_header_only)
add_library(CLI11::CLI11 ALIAS mab_header_only)
set(MAB_TINYGLTF_INCLUDE_DIR ${MAB_HEADER_ONLY_DIR})
set(MAB_FMT_INCLUDE_DIR ${MAB_HEADER_ONLY_DIR})

# simdjson: Debian ships no simdjson.cpp; scripts/setup fetches the pinned amalgamation
# (npm @nozbe/simdjson) into .tools. Built here with the library's flags.
set(MAB_SIMDJSON_DIR ${CMAKE_SOURCE_DIR}/.tools/simdjson-3.9.4/src)
if(NOT EXISTS ${MAB_SIMDJSON_DIR}/simdjson.cpp)
  message(FATAL_ERROR "${MAB_SIMDJSON_DIR}/simdjson.cpp missing: run scripts/setup")
endif()
add_library(mab_simdjson STATIC ${MAB_SIMDJSON_DIR}/simdjson.cpp)
target_include_directories(mab_simdjson SYSTEM PUBLIC ${MAB_SIMDJSON_DIR})
add_library(simdjson::simdjson ALIAS mab_simdjson)
