module steadyflake/bindings/go

go 1.19
