#include "common/cli.h"

#include <cstdlib>
#include <sstream>

#include "common/error.h"

namespace bdmpi {

int ParsePositiveInt(const std::string& option, const std::string& text) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || value < 1 || value > 1 << 20)
    throw Error(kErrArg, option + " needs a positive integer, got '" + text + "'");
  return static_cast<int>(value);
}

std::vector<std::string> ScanCommandLine(const char* tool, int argc, char** argv,
                                         const ApplyOption& apply) {
  int i = 1;
  try {
    for (; i < argc; ++i) {
      std::string arg = argv[i];
      if (arg == "--") {
        ++i;
        break;
      }
      if (arg.empty() || arg[0] != '-') break;
      auto value_of = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(kErrArg, arg + " needs a value");
        return argv[++i];
      };
      if (!apply(arg, value_of)) throw Error(kErrArg, "unknown option '" + arg + "'");
    }
  } catch (const Error& error) {
    throw Error(error.error_class(), std::string(tool) + ": " + error.what());
  }
  return std::vector<std::string>(argv + i, argv + argc);
}

std::string OptionHelpLine(const std::string& names, const std::string& text) {
  constexpr std::size_t kTextColumn = 24;
  constexpr std::size_t kWidth = 78;
  std::string out = "  " + names;
  std::size_t column = out.size();
  bool first_word = true;
  std::istringstream words(text);
  std::string word;
  // The text starts beside the names when they fit in their field, else on
  // the next line; later lines are indented to the text's column.
  if (column + 1 >= kTextColumn) {
    out += "\n";
    column = 0;
  }
  while (words >> word) {
    bool fits = column + 1 + word.size() <= kWidth;
    if (column == 0 || (!first_word && !fits)) {
      if (column != 0) out += "\n";
      out += std::string(kTextColumn, ' ');
      column = kTextColumn;
    } else if (first_word) {
      out += std::string(kTextColumn - column, ' ');
      column = kTextColumn;
    } else {
      out += " ";
      ++column;
    }
    out += word;
    column += word.size();
    first_word = false;
  }
  return out + "\n";
}

}  // namespace bdmpi
