// Name tables: the wire names of an enum as data, looked up both ways.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace arbiter {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

// The name of `e`, or "?" if the table lacks it.
template <class E, std::size_t N>
constexpr std::string_view name_of(const NameTable<E, N>& table, E e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

template <class E, std::size_t N>
constexpr std::optional<E> from_name(const NameTable<E, N>& table, std::string_view text) {
  for (const auto& [value, name] : table)
    if (name == text) return value;
  return std::nullopt;
}

}  // namespace arbiter
