import {
  to = dbcloud_vpc.example
  id = "1234567890"
}
