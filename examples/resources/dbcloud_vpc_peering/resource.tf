resource "dbcloud_vpc" "example" {
  name        = "production"
  cidr        = "10.10.0.0/16"
  region_code = "us-east-1"
}

# Peers the dbcloud VPC with a VPC in your own cloud account. Terraform gets the
# peering connection ID (`provisioned_id`) during this apply, so the peer-side
# accepter can be in the same configuration (see the VPC peering guide).
resource "dbcloud_vpc_peering" "example" {
  vpc_id           = dbcloud_vpc.example.id
  peer_account_id  = "123456789012"
  peer_region_code = "us-east-1"
  peer_vpc_id      = "vpc-0a1b2c3d4e5f67890"
}

output "peering_connection_id" {
  value = dbcloud_vpc_peering.example.provisioned_id
}
