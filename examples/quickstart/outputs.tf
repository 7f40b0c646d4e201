# Endpoints that do not apply (pooler off, no VPC, no replica set, no fork) are
# null rather than an error: each output checks before it interpolates.

output "service_id" {
  description = "Service ID (also its import ID)."
  value       = dbcloud_service.main.id
}

output "service_status" {
  value = dbcloud_service.main.status
}

output "service_type" {
  value = dbcloud_service.main.service_type
}

output "size" {
  description = "CPU and memory (null numbers: a shared-size service)."
  value = (dbcloud_service.main.cpu_millis == null ? "shared" :
  "${dbcloud_service.main.cpu_millis}m CPU / ${dbcloud_service.main.memory_gbs} GB")
}

output "host" {
  description = "Host name of the primary's public endpoint."
  value       = dbcloud_service.main.hostname
}

output "port" {
  description = "Port of the primary's public endpoint."
  value       = dbcloud_service.main.port
}

output "connection_uri" {
  description = "Connection string of the primary, without a password (add it with provider::dbcloud::with_password)."
  value       = dbcloud_service.main.connection_uri
}

output "endpoint" {
  description = "Public endpoint of the primary."
  value = (dbcloud_service.main.hostname == null ? null :
  "${dbcloud_service.main.hostname}:${dbcloud_service.main.port}")
}

output "pooler_endpoint" {
  description = "Endpoint of the connection pooler (null when the pooler is off)."
  value = (dbcloud_service.main.pooler_hostname == null ? null :
  "${dbcloud_service.main.pooler_hostname}:${dbcloud_service.main.pooler_port}")
}

output "vpc_endpoint" {
  description = "Endpoint reachable from inside the VPC and its peers (null outside a VPC)."
  value = (dbcloud_service.main.vpc_hostname == null ? null :
  "${dbcloud_service.main.vpc_hostname}:${dbcloud_service.main.vpc_port}")
}

output "replica_endpoint" {
  description = "Read-only endpoint of the read replica set (null without one)."
  value = (length(dbcloud_read_replica_set.reporting) == 0 ? null :
  "${dbcloud_read_replica_set.reporting[0].hostname}:${dbcloud_read_replica_set.reporting[0].port}")
}

output "replica_status" {
  value = one(dbcloud_read_replica_set.reporting[*].status)
}

output "peering" {
  description = "Peering connection to accept on the peer side, and its status (null without a VPC)."
  value = (length(dbcloud_vpc_peering.app) == 0 ? null :
  "${coalesce(dbcloud_vpc_peering.app[0].provisioned_id, "not provisioned yet")} (${dbcloud_vpc_peering.app[0].status})")
}

output "psql_conninfo" {
  description = "libpq connection string for psql: psql \"$(terraform output -raw psql_conninfo)\"."
  value = (dbcloud_service.main.hostname == null ? null :
  "host=${dbcloud_service.main.hostname} port=${dbcloud_service.main.port} sslmode=require")
}

output "initial_password" {
  description = "Password the service was created with (terraform output -raw initial_password)."
  value       = dbcloud_service.main.initial_password
  sensitive   = true
}

output "fork_id" {
  description = "Service ID of the fork (null without one)."
  value       = one(dbcloud_service.fork[*].id)
}

output "fork_host" {
  value = one(dbcloud_service.fork[*].hostname)
}

output "fork_port" {
  value = one(dbcloud_service.fork[*].port)
}

output "fork_initial_password" {
  description = "Password the fork was created with."
  value       = one(dbcloud_service.fork[*].initial_password)
  sensitive   = true
}
