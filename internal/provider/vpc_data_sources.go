package provider

// The dbcloud_vpc and dbcloud_vpcs data sources.

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var (
	_ datasource.DataSourceWithConfigValidators = (*vpcDataSource)(nil)
)

// NewVPCDataSource is the dbcloud_vpc data source.
func NewVPCDataSource() datasource.DataSource {
	return manageDataSource(&vpcDataSource{dataSourceBase{typeName: vpcTypeName}})
}

type vpcDataSource struct{ dataSourceBase }

func (d *vpcDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One VPC of the project, found by `id` or by `name` (exactly one of them). A name must match " +
			"exactly one VPC: none or several is an error (several lists their ids, so that you can use `id` instead).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Id of the VPC (a decimal string). Give this or `name`.",
				Validators:          []validator.String{decimalID("VPC")},
			},
			"name": schema.StringAttribute{
				Optional:            true,
				Computed:            true,
				MarkdownDescription: "Exact name of the VPC. Give this or `id`; it must match exactly one VPC.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"cidr": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "IPv4 address range in CIDR notation, e.g. `10.0.0.0/16`.",
			},
			"region_code": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Cloud region, e.g. `us-east-1`.",
			},
		},
	}
}

func (d *vpcDataSource) ConfigValidators(_ context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *vpcDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg vpcFields
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reads := d.pd.read()
	var vpc *api.VPC
	if !cfg.ID.IsNull() {
		id := cfg.ID.ValueString()
		v, err := reads.GetVPC(ctx, id)
		if d.pd.readFailed(ctx, &resp.Diagnostics, err, path.Root("id"), "VPC not found", "Could not read VPC",
			fmt.Sprintf("There is no VPC with id %s in this project: %v", id, err)) {
			return
		}
		vpc = v
	} else {
		name := cfg.Name.ValueString()
		vpcs, err := reads.ListVPCs(ctx)
		if err != nil {
			d.pd.addError(ctx, &resp.Diagnostics, "Could not list VPCs", err)
			return
		}
		var matches []*api.VPC
		for i := range vpcs {
			if deref(vpcs[i].Name) == name {
				matches = append(matches, &vpcs[i])
			}
		}
		switch len(matches) {
		case 0:
			resp.Diagnostics.AddAttributeError(path.Root("name"), "VPC not found",
				fmt.Sprintf("no VPC named %q in this project (it has %d VPCs). Names are matched exactly, case included.", name, len(vpcs)))
			return
		case 1:
			vpc = matches[0]
		default:
			ids := make([]string, 0, len(matches))
			for _, m := range matches {
				ids = append(ids, deref(m.ID))
			}
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Several VPCs have this name",
				fmt.Sprintf("%d VPCs are named %q: %s. Select one by id instead of by name.", len(matches), name, strings.Join(ids, ", ")))
			return
		}
	}
	out := flattenVPC(vpc)
	if out.ID.IsNull() {
		out.ID = cfg.ID
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}

// NewVPCsDataSource is the dbcloud_vpcs data source.
func NewVPCsDataSource() datasource.DataSource {
	return manageDataSource(&vpcsDataSource{dataSourceBase{typeName: vpcsTypeName}})
}

type vpcsDataSource struct{ dataSourceBase }

type vpcsDataModel struct {
	VPCs []vpcFields `tfsdk:"vpcs"`
}

func (d *vpcsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "All VPCs of the project, oldest first.",
		Attributes: map[string]schema.Attribute{
			"vpcs": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The project's VPCs (empty when there are none).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "VPC id."},
					"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "VPC name."},
					"cidr":        schema.StringAttribute{Computed: true, MarkdownDescription: "IPv4 address range in CIDR notation, e.g. `10.0.0.0/16`."},
					"region_code": schema.StringAttribute{Computed: true, MarkdownDescription: "Cloud region, e.g. `us-east-1`."},
				}},
			},
		},
	}
}

func (d *vpcsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	vpcs, err := d.pd.read().ListVPCs(ctx)
	if err != nil {
		d.pd.addError(ctx, &resp.Diagnostics, "Could not list VPCs", err)
		return
	}
	out := vpcsDataModel{VPCs: make([]vpcFields, 0, len(vpcs))}
	for i := range vpcs {
		out.VPCs = append(out.VPCs, flattenVPC(&vpcs[i]))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
