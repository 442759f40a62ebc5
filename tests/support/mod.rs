pub mod capture;
pub mod server;
pub mod v3;
