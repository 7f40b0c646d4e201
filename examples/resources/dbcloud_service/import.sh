# The import ID is the service ID.
terraform import dbcloud_service.example rp1pz7uyae
