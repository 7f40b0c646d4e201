# terraform query: the read replica sets of every service of the project.
list "dbcloud_service" "all" {
  provider = dbcloud
}

list "dbcloud_read_replica_set" "all" {
  for_each = toset([for s in list.dbcloud_service.all.data : s.identity.id])
  provider = dbcloud
  config {
    service_id = each.key
  }
}
