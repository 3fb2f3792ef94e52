//! Scenario configuration (serde, mirrors the Python pydantic models) and building a world from it.
pub mod budget;
pub mod build;
pub mod coding;
pub mod config;
pub mod flow_paths;
pub mod layout;
pub mod router_build;
pub mod routers;
pub mod strict;
pub mod topology;
pub mod usable_links;
pub mod wireless_build;
