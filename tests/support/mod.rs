pub mod capture;
pub mod server;
