# The import ID is <service_id>/<replica_set_id>.
terraform import dbcloud_read_replica_set.example rp1pz7uyae/x8k2m4n6q0
