// What a wire format adds to a request's record (what a rider read of its headers and body),
// kept beside the generic fields under the format's profile id, as Wireshark keeps a
// dissector's fields in its tree: the engines carry it without knowing it, and the format
// writes its own JSON and text.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace anthro {

// The registry's id of a wire format (defined in profile/profile.h, which sits above this
// area): opaque here, complete enough to key a map.
enum class ProfileId : std::uint16_t;

class RecordExtension {
 public:
  virtual ~RecordExtension() = default;
  virtual std::unique_ptr<RecordExtension> clone() const = 0;
  // Its member in the request's JSON (request_json): the key, and the value written there.
  virtual std::string_view json_key() const = 0;
  virtual void write_json(nlohmann::json& out) const = 0;
  // Writes its part into the request's JSON object: write_json into its member, unless it
  // writes several members (request_from_json's members kept as read).
  virtual void write_into(nlohmann::json& record) const;
  // What the text output of `session` adds to the request's line: ", " and its words (or
  // nothing).
  virtual std::string text() const { return {}; }
};

// A format's record type as an extension: `Self` gives json_key() and write_json().
template <class Self>
class RecordExtensionOf : public RecordExtension {
 public:
  std::unique_ptr<RecordExtension> clone() const override {
    return std::make_unique<Self>(static_cast<const Self&>(*this));
  }
};

// The extensions of one record, at most one a format; copied whole with the record. Empty
// for most records: a map costs nothing until a format adds its part.
class RecordExtensions {
 public:
  RecordExtensions() = default;
  RecordExtensions(const RecordExtensions& o) { copy_from(o); }
  RecordExtensions(RecordExtensions&&) noexcept = default;
  RecordExtensions& operator=(const RecordExtensions& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  RecordExtensions& operator=(RecordExtensions&&) noexcept = default;

  // The format's part, or null when the record has none (or one of another type).
  template <class T>
  T* find(ProfileId id) {
    auto it = by_format_.find(id);
    return it == by_format_.end() ? nullptr : dynamic_cast<T*>(it->second.get());
  }
  template <class T>
  const T* find(ProfileId id) const {
    auto it = by_format_.find(id);
    return it == by_format_.end() ? nullptr : dynamic_cast<const T*>(it->second.get());
  }
  // A fresh part for the format, replacing what it had.
  template <class T>
  T& emplace(ProfileId id) {
    auto made = std::make_unique<T>();
    T& kept = *made;
    by_format_[id] = std::move(made);
    return kept;
  }
  const std::map<ProfileId, std::unique_ptr<RecordExtension>>& all() const { return by_format_; }

 private:
  void copy_from(const RecordExtensions& o) {
    by_format_.clear();
    for (const auto& [id, part] : o.by_format_) by_format_.emplace(id, part->clone());
  }
  std::map<ProfileId, std::unique_ptr<RecordExtension>> by_format_;
};

}  // namespace anthro
