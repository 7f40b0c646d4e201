variable "name" {
  description = "Name of the service; the VPC and the replica set are named after it."
  type        = string
  default     = "quickstart"
}

variable "region" {
  description = "Region of the VPC and the service (they must share it)."
  type        = string
  default     = "us-east-1"
}

variable "cpu_millis" {
  description = "CPU of the service in thousandths of a core (1000 = 1 vCPU). Changing it resizes in place."
  type        = number
  default     = 1000
}

variable "memory_gbs" {
  description = "Memory of the service in GB. Goes with cpu_millis: 500/2, 1000/4, 2000/8, 4000/16, ..."
  type        = number
  default     = 4
}

variable "vpc_cidr" {
  description = "IPv4 range of the dbcloud VPC. Must not overlap the peer VPC's."
  type        = string
  default     = "10.100.0.0/16"
}

variable "peer_account_id" {
  description = "Cloud account ID that owns the peer VPC."
  type        = string
  default     = "123456789012"
}

variable "peer_vpc_id" {
  description = "ID of the VPC in your account to peer with."
  type        = string
  default     = "vpc-0a1b2c3d4e5f67890"
}

variable "in_vpc" {
  description = "Create a VPC (and a peering) and attach the service to it."
  type        = bool
  default     = true
}

variable "pooler" {
  description = "Turn the service's connection pooler on."
  type        = bool
  default     = true
}

variable "read_replica" {
  description = "Add a read replica set to the service."
  type        = bool
  default     = true
}

variable "fork" {
  description = "Fork the service (a copy of its data, as a second service)."
  type        = bool
  default     = false
}
