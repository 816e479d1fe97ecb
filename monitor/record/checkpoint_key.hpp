#pragma once
// The secret that authenticates checkpoint.json: a checkpoint carries the HMAC-SHA256 of its
// content under a key only its user can read, so that a checkpoint changed after kausal wrote
// it (a zeroed digest midstate, an edited state, with any checksum recomputed) is refused
// instead of resuming to a wrong digest (docs/architecture.md, "Checkpoints and resume").
#include <filesystem>
#include <string>
#include <string_view>

namespace kausal {

// Where the key is: $KAUSAL_CHECKPOINT_KEY, else $XDG_CONFIG_HOME/kausal/checkpoint.key, else
// $HOME/.config/kausal/checkpoint.key. InputError if none of them is set.
std::filesystem::path checkpoint_key_file();

// The hex HMAC-SHA256 of `text` under the key, which is created (32 random bytes, mode 0600)
// if there is none yet. InputError naming the key file if it cannot be created or read, or
// if other users may read or change it.
std::string checkpoint_mac(std::string_view text);

// Whether `mac` is the MAC of `text` under the key. InputError naming the key file if there
// is no usable key (none is created: a checkpoint from elsewhere cannot be verified here).
bool checkpoint_mac_matches(std::string_view text, std::string_view mac);

}  // namespace kausal
