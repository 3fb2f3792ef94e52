//! Scenario configuration (serde; the format's one description, from which `schema` generates
//! the JSON Schema the front end and editors read) and building a world from it.
pub mod budget;
pub mod build;
pub mod coding;
pub mod config;
pub mod flow_build;
pub mod flow_paths;
pub mod layout;
pub mod route_weights;
pub mod router_build;
pub mod routers;
pub mod schema;
pub mod strict;
pub mod topology;
pub mod trace_build;
pub mod usable_links;
pub mod wireless_build;
