# By name: it must match exactly one VPC...
data "dbcloud_vpc" "by_name" {
  name = "production"
}

# ...or by ID.
data "dbcloud_vpc" "by_id" {
  id = "1234567890"
}

output "production_vpc" {
  value = "${data.dbcloud_vpc.by_name.id}: ${data.dbcloud_vpc.by_name.cidr} in ${data.dbcloud_vpc.by_name.region_code}"
}
