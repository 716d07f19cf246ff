// Where a launch setting came from: what every report says beside a kernel's grid, block,
// shared memory and arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace bankcheck::analysis {

// Where a launch setting came from, flags over the launch comment over the file's own
// launch; Default where none gave it (the file's only kernel).
enum class SettingFrom : std::uint8_t { Flag, Comment, Host, Default };

inline constexpr SettingFrom kSettingFroms[] = {SettingFrom::Flag, SettingFrom::Comment,
                                                SettingFrom::Host, SettingFrom::Default};

// "flag", "comment", "host", "default": the words every view writes (JSON `from`).
constexpr std::string_view setting_from_name(SettingFrom from) {
  constexpr std::string_view kNames[] = {"flag", "comment", "host", "default"};
  return kNames[static_cast<std::size_t>(from)];
}

// The provenance setting_from_name() calls `word`; another word is a std::logic_error.
constexpr SettingFrom setting_from(std::string_view word) {
  for (const SettingFrom f : kSettingFroms)
    if (setting_from_name(f) == word) return f;
  throw std::logic_error("a launch setting comes from a flag, a comment, the host or a default");
}

// Where one launch setting came from: `setting` is "kernel", "grid", "block", "smem",
// "blocks" or "arg NAME"; `where` says which flag, comment or launch ("launch 1 at f.cu:42
// in main"), `expr` what the host code wrote there ("(n + 255) / 256"; empty for flags and
// comments).
struct SettingSource {
  std::string setting;
  SettingFrom from = SettingFrom::Default;
  std::string where, expr;

  SettingSource() = default;
  SettingSource(std::string setting, SettingFrom from, std::string where, std::string expr = {})
      : setting(std::move(setting)), from(from), where(std::move(where)), expr(std::move(expr)) {}
  // `from` in words, as setting_from_name() writes them (the launch settings of
  // driver/host_settings.cpp are still given so).
  SettingSource(std::string setting, std::string_view from, std::string where,
                std::string expr = {})
      : SettingSource(std::move(setting), setting_from(from), std::move(where), std::move(expr)) {}
};

}  // namespace bankcheck::analysis
