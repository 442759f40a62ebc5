pub mod capture;
pub mod server;
pub mod spec_text;
pub mod v3;
