import {
  to = dbcloud_vpc_peering.example
  id = "1234567890/9876543210"
}
