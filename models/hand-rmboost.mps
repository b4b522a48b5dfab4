NAME        
ROWS
 N  Obj     
 L  margin_0
 L  margin_1
 L  margin_2
COLUMNS
    mup_0     Obj       -0.23333333333333331
    mup_0     margin_0  1
    mup_0     margin_1  1
    mup_0     margin_2  -1
    mum_0     Obj       0.43333333333333335
    mum_0     margin_0  -1
    mum_0     margin_1  -1
    mum_0     margin_2  1
    mup_1     Obj       -0.23333333333333331
    mup_1     margin_0  1
    mup_1     margin_1  -1
    mup_1     margin_2  1
    mum_1     Obj       0.43333333333333335
    mum_1     margin_0  -1
    mum_1     margin_1  1
    mum_1     margin_2  -1
RHS
    RHS_V     Obj       -0.5
    RHS_V     margin_0  0.5
    RHS_V     margin_1  0.5
    RHS_V     margin_2  0.5
RANGES
    RANGE     margin_0  1
    RANGE     margin_1  1
    RANGE     margin_2  1
ENDATA
