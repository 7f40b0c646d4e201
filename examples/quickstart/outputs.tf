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
  value = "${dbcloud_service.main.cpu_millis}m CPU / ${dbcloud_service.main.memory_gbs} GB"
}

output "endpoint" {
  description = "Public endpoint of the primary."
  value       = "${dbcloud_service.main.hostname}:${dbcloud_service.main.port}"
}

output "pooler_endpoint" {
  description = "Endpoint of the connection pooler."
  value       = "${dbcloud_service.main.pooler_hostname}:${dbcloud_service.main.pooler_port}"
}

output "vpc_endpoint" {
  description = "Endpoint reachable from inside the VPC and its peers."
  value       = "${dbcloud_service.main.vpc_hostname}:${dbcloud_service.main.vpc_port}"
}

output "replica_endpoint" {
  description = "Read-only endpoint of the read replica set."
  value       = "${dbcloud_read_replica_set.reporting.hostname}:${dbcloud_read_replica_set.reporting.port}"
}

output "replica_status" {
  value = dbcloud_read_replica_set.reporting.status
}

output "peering" {
  description = "Peering connection to accept on the peer side, and its status."
  value       = "${dbcloud_vpc_peering.app.provisioned_id} (${dbcloud_vpc_peering.app.status})"
}

output "psql_conninfo" {
  description = "libpq connection string for psql: psql \"$(terraform output -raw psql_conninfo)\"."
  value       = "host=${dbcloud_service.main.hostname} port=${dbcloud_service.main.port} sslmode=require"
}

output "initial_password" {
  description = "Password the service was created with (terraform output -raw initial_password)."
  value       = dbcloud_service.main.initial_password
  sensitive   = true
}
