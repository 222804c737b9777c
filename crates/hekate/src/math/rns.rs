//! RNS bases, CRT constants, exact fast base conversion, ModUp and ModDown.
