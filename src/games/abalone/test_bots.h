// Abalone's tests: the source of a house team (bots/*.lua of this folder, ARBITER_ABALONE_BOTS).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#ifndef ARBITER_ABALONE_BOTS
#error "ARBITER_ABALONE_BOTS must name the folder of the house teams"
#endif

namespace arbiter::abalone {

// The text of the house team file `name` ("team.lua"); empty when it cannot be read.
inline std::string read_bot(const std::string& name) {
  std::ifstream in(std::filesystem::path(ARBITER_ABALONE_BOTS) / name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace arbiter::abalone
