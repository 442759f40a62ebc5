pub mod capture;
pub mod server;
pub mod v3;

/// The service's error answer that `err` is; any other error fails the test, shown.
#[allow(dead_code)] // not every test file that has the support module checks one
#[track_caller]
pub fn api_error(err: &inspection_client::Error) -> &inspection_client::ApiError {
    match err {
        inspection_client::Error::Api(api) => api,
        other => panic!("expected an error answer, got {other:?}"),
    }
}
