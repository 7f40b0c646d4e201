# Everything of a project: `terraform query -generate-config-out=generated.tf`
# writes one import block and one resource block per object found.
list "dbcloud_vpc" "all" {
  provider         = dbcloud
  include_resource = true
}

list "dbcloud_service" "all" {
  provider         = dbcloud
  include_resource = true

  # Optional filters, matched exactly:
  # config {
  #   name         = "orders"
  #   service_type = "TIMESCALEDB"
  #   status       = "READY"
  # }
}

# Replica sets are listed per service and peerings per VPC: one list per
# service (VPC) found above.
list "dbcloud_read_replica_set" "all" {
  for_each         = toset([for s in list.dbcloud_service.all.data : s.identity.id])
  provider         = dbcloud
  include_resource = true
  config {
    service_id = each.key
  }
}

list "dbcloud_vpc_peering" "all" {
  for_each         = toset([for v in list.dbcloud_vpc.all.data : v.identity.id])
  provider         = dbcloud
  include_resource = true
  config {
    vpc_id = each.key
  }
}
