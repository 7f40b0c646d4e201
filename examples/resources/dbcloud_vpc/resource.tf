# A private network for services in eu-west-1. Services join it with their
# `vpc_id` argument and must be in the same region.
resource "dbcloud_vpc" "example" {
  name        = "production"
  cidr        = "10.10.0.0/16"
  region_code = "eu-west-1"
}
