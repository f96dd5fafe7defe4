// The suite compiled into ouro (cmake/embed_tree.cmake over eval/suite/ in the source tree).
#pragma once

#include <span>
#include <string_view>

namespace ouro::eval {

struct ShippedFile {
  std::string_view path;  // relative: "sites/bank/index.html"
  std::string_view data;
};

std::span<const ShippedFile> shipped_files();

}  // namespace ouro::eval
