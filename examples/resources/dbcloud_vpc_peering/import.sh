# The import ID is <vpc_id>/<peering_id>.
terraform import dbcloud_vpc_peering.example 1234567890/9876543210
