NAME        LPBoost_dual
ROWS
 N  Obj     
 E  sum_d   
 L  edge_0  
 L  edge_1  
COLUMNS
    d_0       sum_d     1
    d_0       edge_0    1
    d_0       edge_1    -1
    d_1       sum_d     1
    d_1       edge_0    -1
    d_1       edge_1    1
    d_2       sum_d     1
    d_2       edge_0    1
    d_2       edge_1    1
    gamma     Obj       1
    gamma     edge_0    -1
    gamma     edge_1    -1
RHS
    RHS_V     sum_d     1
BOUNDS
 UP BOUND     d_0       0.41666666666666663
 UP BOUND     d_1       0.41666666666666663
 UP BOUND     d_2       0.41666666666666663
 FR BOUND     gamma   
ENDATA
