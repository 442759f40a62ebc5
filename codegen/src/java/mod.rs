//! The Java backend's names (the backend itself is being built: see issue notes).

pub mod names;
