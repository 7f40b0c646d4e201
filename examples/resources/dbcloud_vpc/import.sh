# The import ID is the VPC ID.
terraform import dbcloud_vpc.example 1234567890
