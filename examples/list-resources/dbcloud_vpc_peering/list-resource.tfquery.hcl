# terraform query: the peerings of every VPC of the project.
list "dbcloud_vpc" "all" {
  provider = dbcloud
}

list "dbcloud_vpc_peering" "all" {
  for_each = toset([for v in list.dbcloud_vpc.all.data : v.identity.id])
  provider = dbcloud
  config {
    vpc_id = each.key
  }
}
