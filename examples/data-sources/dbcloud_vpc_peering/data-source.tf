# One peering of a VPC.
data "dbcloud_vpc_peering" "example" {
  vpc_id = "1234567890"
  id     = "9876543210"
}

output "peering_status" {
  value = data.dbcloud_vpc_peering.example.status
}
