//! The versioned binary format of hekate objects, validated on read.
