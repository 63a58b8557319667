// Command-line options as rows of a table: name, value, default, the
// slaves' environment variable, validation and help text in one place.
// bdmpiexec and bdmprun parse with the same rows (common/job_options.h),
// bdmpiexec passes them on to bdmprun and bdmprun to the slaves from the
// same rows, and `bdmpiexec --help` is printed from them.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/byte_size.h"
#include "common/cli.h"
#include "common/error.h"

namespace bdmpi {

template <class Options>
struct OptionRow {
  std::string name;        // "--mem-threshold"
  std::string alias;       // "-v" for "--verbose"; may be empty
  std::string value_name;  // "SIZE"; empty for a flag without a value
  std::string help;        // one sentence; the default is added after it
  // Parses and stores the value (a flag gets ""). Throws Error(kErrArg)
  // with a message that names the option.
  std::function<void(Options&, const std::string&)> set;
  // The value as text again, for bdmprun's command line (flags: "" when
  // not set) and the slaves' environment; empty: bdmpiexec's own option.
  std::function<std::string(const Options&)> get;
  std::string default_text;  // for --help; empty: none shown
  std::string env;           // the slaves' variable for it, if any
  // A setting read with getenv where it is used (a master's, a rank's or
  // bdmpiexec's own code): bdmpiexec takes the variable from its
  // environment as the option's value unless the option is given
  // (ApplyVariables), and sets it from the option for every process it
  // starts (SetVariables). Such a row is not passed on as an argument.
  std::string variable;

  using Setter = std::function<void(Options&, const std::string&)>;
  using Getter = std::function<std::string(const Options&)>;
  OptionRow(std::string name_, std::string value_name_, std::string help_, Setter set_,
            Getter get_, std::string default_text_ = "")
      : name(std::move(name_)),
        value_name(std::move(value_name_)),
        help(std::move(help_)),
        set(std::move(set_)),
        get(std::move(get_)),
        default_text(std::move(default_text_)) {}

  OptionRow&& Env(std::string slaves_variable) && {
    env = std::move(slaves_variable);
    return std::move(*this);
  }
  OptionRow&& Variable(std::string setting_variable) && {
    variable = std::move(setting_variable);
    return std::move(*this);
  }
  OptionRow&& Default(std::string text) && {
    default_text = std::move(text);
    return std::move(*this);
  }
  // Runs `check(options)` after each value is stored (it throws kErrArg).
  OptionRow&& Check(std::function<void(const Options&)> check) && {
    set = [store = std::move(set), check = std::move(check)](Options& o, const std::string& v) {
      store(o, v);
      check(o);
    };
    return std::move(*this);
  }
  OptionRow&& Alias(std::string other) && {
    alias = std::move(other);
    return std::move(*this);
  }
  bool Matches(const std::string& arg) const {
    return arg == name || (!alias.empty() && arg == alias);
  }
  bool Flag() const { return value_name.empty(); }
};

// -ns N: an integer in [1, 2^20].
template <class Options>
OptionRow<Options> CountOption(std::string name, int Options::*field, std::string help) {
  std::string copy = name;
  return {name, "N", std::move(help),
          [copy, field](Options& o, const std::string& v) {
            o.*field = ParsePositiveInt(copy, v);
          },
          [field](const Options& o) { return std::to_string(o.*field); },
          std::to_string(Options{}.*field)};
}

// --mem-budget SIZE: ParseByteSize's sizes; passed on as a byte count.
template <class Options>
OptionRow<Options> SizeOption(std::string name, std::size_t Options::*field,
                              std::string help) {
  std::string copy = name;
  std::size_t initial = Options{}.*field;
  return {name, "SIZE", std::move(help),
          [copy, field](Options& o, const std::string& v) { o.*field = ParseByteSize(v, copy); },
          [field](const Options& o) { return std::to_string(o.*field); },
          initial != 0 ? FormatByteSize(initial) : ""};
}

// --policy memory|fifo: one of several names, each standing for a value.
template <class Options, class Value>
OptionRow<Options> ChoiceOption(std::string name, Value Options::*field,
                                std::vector<std::pair<std::string, Value>> choices,
                                std::string help) {
  std::string names;
  std::string initial;
  for (const auto& [text, value] : choices) {
    names += (names.empty() ? "" : "|") + text;
    if (value == Options{}.*field) initial = text;
  }
  std::string copy = name;
  return {name, names, std::move(help),
          [copy, names, choices, field](Options& o, const std::string& v) {
            for (const auto& [text, value] : choices) {
              if (text == v) {
                o.*field = value;
                return;
              }
            }
            throw Error(kErrArg, copy + " is " + names + ", got '" + v + "'");
          },
          [choices, field](const Options& o) {
            for (const auto& [text, value] : choices) {
              if (value == o.*field) return text;
            }
            return std::string();
          },
          initial};
}

// --topology FILE: any text.
template <class Options>
OptionRow<Options> TextOption(std::string name, std::string Options::*field,
                              std::string value_name, std::string help) {
  return {name, std::move(value_name), std::move(help),
          [field](Options& o, const std::string& v) { o.*field = v; },
          [field](const Options& o) { return o.*field; }};
}

// --no-bind: stores `when_given`; passed on as the bare flag.
template <class Options>
OptionRow<Options> FlagOption(std::string name, bool Options::*field, bool when_given,
                              std::string help) {
  return {name, "", std::move(help),
          [field, when_given](Options& o, const std::string&) { o.*field = when_given; },
          [field, when_given](const Options& o) {
            return o.*field == when_given ? std::string("1") : std::string();
          }};
}

// Rows that only bdmpiexec reads: no get, so never passed on.
template <class Options>
OptionRow<Options> LauncherOnly(OptionRow<Options> row) {
  row.get = nullptr;
  return row;
}

template <class Options>
const OptionRow<Options>* FindOption(const std::vector<OptionRow<Options>>& table,
                                     const std::string& arg) {
  for (const OptionRow<Options>& row : table) {
    if (row.Matches(arg)) return &row;
  }
  return nullptr;
}

// "  -ns N                 slaves ... (default 1)" lines, wrapped at 78.
template <class Options>
std::string OptionHelp(const std::vector<OptionRow<Options>>& table) {
  std::string text;
  for (const OptionRow<Options>& row : table) {
    std::string names = row.alias.empty() ? row.name : row.alias + ", " + row.name;
    if (!row.Flag()) names += " " + row.value_name;
    std::string help = row.help;
    if (!row.default_text.empty() && !row.variable.empty())
      help += " (default " + row.default_text + "; variable " + row.variable + ")";
    else if (!row.default_text.empty())
      help += " (default " + row.default_text + ")";
    else if (!row.variable.empty())
      help += " (variable " + row.variable + ")";
    text += OptionHelpLine(names, help);
  }
  return text;
}

// The rows' variables set in this environment, as if their options were
// given, for the rows `given(name)` says the command line did not give.
// A bad value is an Error(kErrArg) naming the variable.
template <class Options, class Given>
void ApplyVariables(const std::vector<OptionRow<Options>>& table, Options& options,
                    const Given& given) {
  for (const OptionRow<Options>& row : table) {
    if (row.variable.empty() || given(row.name)) continue;
    const char* value = std::getenv(row.variable.c_str());
    if (value == nullptr || *value == '\0') continue;
    try {
      row.set(options, value);
    } catch (const Error& error) {
      throw Error(kErrArg, row.variable + "=" + value + " (the setting of " + row.name +
                               "): " + error.what());
    }
  }
}

// Sets each row's variable to the option's value for the code that reads
// it, here and in every process started from here; removes it when the
// value is the default, which that code assumes when the variable is unset.
template <class Options>
void SetVariables(const std::vector<OptionRow<Options>>& table, const Options& options) {
  static const Options defaults{};
  for (const OptionRow<Options>& row : table) {
    if (row.variable.empty() || !row.get) continue;
    std::string value = row.get(options);
    if (value.empty() || value == row.get(defaults)) unsetenv(row.variable.c_str());
    else setenv(row.variable.c_str(), value.c_str(), 1);
  }
}

}  // namespace bdmpi
