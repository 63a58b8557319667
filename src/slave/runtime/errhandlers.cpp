// User error handlers and added error codes; see errhandlers.h.
#include "slave/runtime/errhandlers.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/handles.h"

namespace bdmpi {
namespace {

// Handles: MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN and MPI_ERRORS_ABORT are
// indices 0, 1 and 2.
constexpr int kFirstUserHandler = 3;

// Exactly one of the functions is set: the handler's kind.
struct UserHandler {
  MPI_Comm_errhandler_function* function;
  MPI_File_errhandler_function* file_function;
  MPI_Win_errhandler_function* win_function = nullptr;
  int references;
  MPI_Session_errhandler_function* session_function = nullptr;  // the program's handles to it
};

std::vector<UserHandler>& Handlers() {
  static std::vector<UserHandler> handlers;
  return handlers;
}

struct AddedCode {
  int error_class;
  std::string text;
  bool has_text = false;  // MPI_Add_error_string gave one (not yet removed)
};

// Added classes and codes by value; they count up from MPI_ERR_LASTCODE,
// and the largest removed is given out again (as the last used is).
std::map<int, AddedCode>& AddedCodes() {
  static std::map<int, AddedCode> codes;
  return codes;
}

bool IsPredefinedHandler(MPI_Errhandler handler) {
  return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN ||
         handler == MPI_ERRORS_ABORT;
}

UserHandler* FindUser(MPI_Errhandler handler) {
  if (!HandleIs(handler, HandleKind::kErrhandler)) return nullptr;
  int index = HandleIndex(handler) - kFirstUserHandler;
  if (index < 0 || index >= static_cast<int>(Handlers().size())) return nullptr;
  return &Handlers()[static_cast<std::size_t>(index)];
}

int NextCode() { return LastUsedErrorCode() + 1; }

MPI_Errhandler NewHandler(UserHandler handler) {
  Handlers().push_back(handler);
  return MakeHandle(HandleKind::kErrhandler,
                    kFirstUserHandler + static_cast<int>(Handlers().size()) - 1);
}

}  // namespace

MPI_Errhandler CreateErrhandler(MPI_Comm_errhandler_function* function) {
  if (function == nullptr) throw Error(kErrArg, "no error handler function given");
  return NewHandler(UserHandler{function, nullptr, nullptr, 1});
}

MPI_Errhandler CreateFileErrhandler(MPI_File_errhandler_function* function) {
  if (function == nullptr) throw Error(kErrArg, "no error handler function given");
  return NewHandler(UserHandler{nullptr, function, nullptr, 1});
}

MPI_Errhandler CreateWinErrhandler(MPI_Win_errhandler_function* function) {
  if (function == nullptr) throw Error(kErrArg, "no error handler function given");
  return NewHandler(UserHandler{nullptr, nullptr, function, 1});
}

MPI_Errhandler CreateSessionErrhandler(MPI_Session_errhandler_function* function) {
  if (function == nullptr) throw Error(kErrArg, "no error handler function given");
  return NewHandler(UserHandler{nullptr, nullptr, nullptr, 1, function});
}

void CheckErrhandler(MPI_Errhandler handler) {
  if (IsPredefinedHandler(handler)) return;
  UserHandler* user = FindUser(handler);
  if (user == nullptr || user->references <= 0) throw Error(kErrArg, "invalid error handler");
}

MPI_Comm_errhandler_function* ErrhandlerFunction(MPI_Errhandler handler) {
  UserHandler* user = FindUser(handler);
  return user == nullptr ? nullptr : user->function;
}

MPI_File_errhandler_function* FileErrhandlerFunction(MPI_Errhandler handler) {
  UserHandler* user = FindUser(handler);
  return user == nullptr ? nullptr : user->file_function;
}

MPI_Win_errhandler_function* WinErrhandlerFunction(MPI_Errhandler handler) {
  UserHandler* user = FindUser(handler);
  return user == nullptr ? nullptr : user->win_function;
}

MPI_Session_errhandler_function* SessionErrhandlerFunction(MPI_Errhandler handler) {
  UserHandler* user = FindUser(handler);
  return user == nullptr ? nullptr : user->session_function;
}

void RetainErrhandler(MPI_Errhandler handler) {
  UserHandler* user = FindUser(handler);
  if (user != nullptr) ++user->references;
}

void FreeErrhandler(MPI_Errhandler* handler) {
  CheckErrhandler(*handler);
  UserHandler* user = FindUser(*handler);
  if (user != nullptr) --user->references;
  *handler = MPI_ERRHANDLER_NULL;
}

int AddErrorClass() {
  int code = NextCode();
  AddedCodes().emplace(code, AddedCode{code, "", false});
  return code;
}

int AddErrorCode(int error_class) {
  bool predefined = error_class >= MPI_SUCCESS && error_class <= MPI_ERR_LASTCODE;
  auto added = AddedCodes().find(error_class);
  bool added_class = added != AddedCodes().end() && added->second.error_class == error_class;
  if (!predefined && !added_class)
    throw Error(kErrArg, "error class " + std::to_string(error_class) + " does not exist");
  int code = NextCode();
  AddedCodes().emplace(code, AddedCode{error_class, "", false});
  return code;
}

void AddErrorString(int code, const char* text) {
  auto added = AddedCodes().find(code);
  if (added == AddedCodes().end())
    throw Error(kErrArg,
                "only codes and classes added with MPI_Add_error_class/code "
                "take a string (code " +
                    std::to_string(code) + ")");
  if (std::strlen(text) >= MPI_MAX_ERROR_STRING)
    throw Error(kErrArg, "error strings have fewer than MPI_MAX_ERROR_STRING characters");
  added->second.text = text;
  added->second.has_text = true;
}

void RemoveErrorClass(int error_class) {
  auto added = AddedCodes().find(error_class);
  if (added == AddedCodes().end() || added->second.error_class != error_class)
    throw Error(kErrArg, "error class " + std::to_string(error_class) +
                             " was not added by MPI_Add_error_class (or was removed)");
  for (const auto& [code, entry] : AddedCodes()) {
    if (code != error_class && entry.error_class == error_class)
      throw Error(kErrArg, "error class " + std::to_string(error_class) + " still has code " +
                               std::to_string(code) +
                               ": remove its codes with MPI_Remove_error_code first");
  }
  // As for a code: MPI 4.1 9.5 allows the removal once its string is gone.
  if (added->second.has_text)
    throw Error(kErrArg, "error class " + std::to_string(error_class) +
                             " still has a string: remove it with MPI_Remove_error_string "
                             "first");
  AddedCodes().erase(added);
}

void RemoveErrorCode(int code) {
  auto added = AddedCodes().find(code);
  if (added == AddedCodes().end() || added->second.error_class == code)
    throw Error(kErrArg, "error code " + std::to_string(code) +
                             " was not added by MPI_Add_error_code (or was removed)");
  if (added->second.has_text)
    throw Error(kErrArg, "error code " + std::to_string(code) +
                             " still has a string: remove it with MPI_Remove_error_string "
                             "first");
  AddedCodes().erase(added);
}

void RemoveErrorString(int code) {
  auto added = AddedCodes().find(code);
  if (added == AddedCodes().end() || !added->second.has_text)
    throw Error(kErrArg, "error code or class " + std::to_string(code) +
                             " has no string added by MPI_Add_error_string");
  added->second.text.clear();
  added->second.has_text = false;
}

int AddedErrorClass(int code) {
  auto added = AddedCodes().find(code);
  return added == AddedCodes().end() ? -1 : added->second.error_class;
}

const std::string* AddedErrorString(int code) {
  auto added = AddedCodes().find(code);
  return added == AddedCodes().end() ? nullptr : &added->second.text;
}

int LastUsedErrorCode() {
  return AddedCodes().empty() ? MPI_ERR_LASTCODE : AddedCodes().rbegin()->first;
}

}  // namespace bdmpi
