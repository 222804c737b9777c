//! RLWE keys, gadget encryptions and the key-switching engines.
