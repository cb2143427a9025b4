#pragma once
// A list of per-kind entries (a layer's code for each stage kind: CPU evaluator, file codec,
// stage trainer), looked up by the kind's name. Each layer keeps one, built from its list of
// built-in kinds; register_kind adds or replaces an entry at run time (tests, plug-ins).
// Thread-safe. Entries are never removed, and a pointer returned by find() stays valid (a
// replaced entry is kept, so a detector made before the replacement keeps working).
#include <deque>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>

namespace cascadekit {

template <class Entry>  // Entry has a `std::string_view kind` member naming a static string
class KindRegistry {
public:
    KindRegistry(std::initializer_list<Entry> builtin) : entries_(builtin) {}

    void register_kind(Entry entry) {
        std::lock_guard lock(mutex_);
        entries_.push_front(std::move(entry));  // found before any older entry of the same name
    }
    const Entry* find(std::string_view kind) const {
        std::lock_guard lock(mutex_);
        for (const Entry& e : entries_)
            if (e.kind == kind) return &e;
        return nullptr;
    }
    // The distinct names, comma-separated, in the order they were listed or registered.
    std::string names() const {
        std::lock_guard lock(mutex_);
        std::string out;
        for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
            const std::string item(it->kind);
            if ((", " + out + ", ").find(", " + item + ", ") != std::string::npos) continue;
            out.append(out.empty() ? "" : ", ").append(item);
        }
        return out;
    }

private:
    mutable std::mutex mutex_;
    std::deque<Entry> entries_;  // a deque: push_front keeps pointers to the others valid
};

}  // namespace cascadekit
