# Every peering of a VPC.
data "dbcloud_vpc_peerings" "example" {
  vpc_id = "1234567890"
}

output "pending_peerings" {
  value = [for p in data.dbcloud_vpc_peerings.example.peerings : p.id if p.status != "active"]
}
