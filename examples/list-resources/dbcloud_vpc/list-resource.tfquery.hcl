# terraform query: the VPCs of the provider's project.
list "dbcloud_vpc" "all" {
  provider = dbcloud
}

list "dbcloud_vpc" "production" {
  provider = dbcloud
  config {
    name = "production"
  }
}
