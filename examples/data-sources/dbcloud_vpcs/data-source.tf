# Every VPC of the project.
data "dbcloud_vpcs" "all" {}

output "vpc_cidrs" {
  value = { for v in data.dbcloud_vpcs.all.vpcs : v.name => v.cidr }
}
