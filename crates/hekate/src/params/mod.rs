//! Named parameter presets and the HomomorphicEncryption.org security table.
