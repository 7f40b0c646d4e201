import {
  to = dbcloud_read_replica_set.example
  id = "rp1pz7uyae/x8k2m4n6q0"
}
