#include "common/name_tags.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdio>

#include "common/error.h"

namespace bdmpi {

std::string NameTags::NewKey() { return NewJobId() + NewJobId(); }

std::string NameTags::Of(const std::string& what) const {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(what.data()), what.size(), digest,
           &size) == nullptr ||
      size < 8)
    throw Error(kErrOther, "HMAC-SHA256 failed (OpenSSL's libcrypto)");
  char text[17];
  for (int i = 0; i < 8; ++i) std::snprintf(text + 2 * i, 3, "%02x", digest[i]);
  return std::string(text, 16);
}

NodeObjectNames NamesOfNodeObjects(const JobNames& names, const NameTags& tags, int nslaves) {
  NodeObjectNames objects;
  objects.request_queue = names.RequestQueue(tags.Of("req"));
  objects.storage_table = names.StorageTable(tags.Of("storage"));
  for (int i = 0; i < nslaves; ++i) {
    std::string index = std::to_string(i);
    objects.go_queues.push_back(names.GoQueue(i, tags.Of("go" + index)));
    objects.windows.push_back(names.Window(i, tags.Of("win" + index)));
  }
  return objects;
}

}  // namespace bdmpi
